; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.Texture2D<uint>" = type opaque
%"class.Texture2D<float4>" = type opaque
%"class.RWTexture2D<float4>" = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%"FrameConstants" = type opaque
declare void @"ClassifyTiles"()

declare void @"MaterialOpaque"()

declare void @"MaterialMetal"()

declare void @"MaterialFoliage"()

declare void @"MaterialEmissive"()

declare void @"FallbackMaterial"()

declare void @"SkyTiles"()

declare void @"DebugCountTiles"()

@"MaterialIds" = external constant %"class.Texture2D<uint>"
@"GBufferA" = external constant %"class.Texture2D<float4>"
@"GBufferB" = external constant %"class.Texture2D<float4>"
@"SceneColor" = external constant %"class.RWTexture2D<float4>"
@"Stats" = external constant %"class.RWStructuredBuffer<uint>"
@"FrameConstants" = external constant %"FrameConstants"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !14 }
!dx.entryPoints = !{ !15, !34, !40, !43, !46, !49, !51, !56, !59 }
!wgc.spirv.entryPoints = !{ !60, !61, !62, !63, !64, !65, !66, !67 }
!wgc.experimental.tags = !{ !68, !69 }
!llvm.ident = !{ !70 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 0, i32 5 }
!3 = !{ i32 0, %"class.Texture2D<uint>"* @"MaterialIds", !"MaterialIds", i32 0, i32 0, i32 1, i32 2, i32 0, !2 }
!4 = !{ i32 0, i32 9 }
!5 = !{ i32 1, %"class.Texture2D<float4>"* @"GBufferA", !"GBufferA", i32 0, i32 1, i32 1, i32 2, i32 0, !4 }
!6 = !{ i32 2, %"class.Texture2D<float4>"* @"GBufferB", !"GBufferB", i32 0, i32 2, i32 1, i32 2, i32 0, !4 }
!7 = !{ !3, !5, !6 }
!8 = !{ i32 0, %"class.RWTexture2D<float4>"* @"SceneColor", !"SceneColor", i32 0, i32 3, i32 1, i32 2, i1 false, i1 false, i1 false, !4 }
!9 = !{ i32 1, i32 4 }
!10 = !{ i32 1, %"class.RWStructuredBuffer<uint>"* @"Stats", !"Stats", i32 0, i32 4, i32 1, i32 12, i1 false, i1 false, i1 false, !9 }
!11 = !{ !8, !10 }
!12 = !{ i32 0, %"FrameConstants"* @"FrameConstants", !"FrameConstants", i32 0, i32 5, i32 1, i32 48, null }
!13 = !{ !12 }
!14 = !{ !7, !11, !13, null }
!15 = !{ null, !"", null, !14, null }
!16 = !{ !"ClassifyTiles", i32 0 }
!17 = !{ i32 480, i32 270, i32 1 }
!18 = !{ i32 0, i32 5, i32 2 }
!19 = !{ i32 0, i32 8, i32 1, !18, i32 2, i32 4 }
!20 = !{ i32 1, i32 97, i32 2, !19 }
!21 = !{ !20 }
!22 = !{ i32 0, i32 12, i32 2, i32 4 }
!23 = !{ !"Material", i32 0 }
!24 = !{ i32 1, i32 22, i32 2, !22, i32 3, i32 32, i32 5, i32 32, i32 6, i1 true, i32 0, !23, i32 7, i32 1 }
!25 = !{ !"FallbackMaterial", i32 0 }
!26 = !{ i32 1, i32 6, i32 2, !22, i32 3, i32 0, i32 4, i32 0, i32 0, !25 }
!27 = !{ !"SkyTiles", i32 0 }
!28 = !{ i32 1, i32 10, i32 3, i32 1, i32 0, !27 }
!29 = !{ !"DebugOverlay", i32 0 }
!30 = !{ i32 1, i32 26, i32 3, i32 1, i32 5, i32 -1, i32 6, i1 true, i32 0, !29, i32 7, i32 1 }
!31 = !{ !24, !26, !28, !30 }
!32 = !{ i32 8, i32 8, i32 1 }
!33 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !16, i32 16, i32 -1, i32 22, !17, i32 20, !21, i32 21, !31, i32 4, !32 }
!34 = !{ void ()* @"ClassifyTiles", !"ClassifyTiles", null, null, !33 }
!35 = !{ !"Material", i32 1 }
!36 = !{ i32 1, i32 65, i32 2, !22, i32 3, i32 4 }
!37 = !{ !36 }
!38 = !{ i32 64, i32 1, i32 1 }
!39 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !35, i32 16, i32 -1, i32 20, !37, i32 4, !38 }
!40 = !{ void ()* @"MaterialOpaque", !"MaterialOpaque", null, null, !39 }
!41 = !{ !"Material", i32 2 }
!42 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !41, i32 16, i32 -1, i32 20, !37, i32 4, !38 }
!43 = !{ void ()* @"MaterialMetal", !"MaterialMetal", null, null, !42 }
!44 = !{ !"Material", i32 3 }
!45 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !44, i32 16, i32 -1, i32 20, !37, i32 4, !38 }
!46 = !{ void ()* @"MaterialFoliage", !"MaterialFoliage", null, null, !45 }
!47 = !{ !"Material", i32 4 }
!48 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !47, i32 16, i32 -1, i32 20, !37, i32 4, !38 }
!49 = !{ void ()* @"MaterialEmissive", !"MaterialEmissive", null, null, !48 }
!50 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !25, i32 16, i32 -1, i32 20, !37, i32 4, !38 }
!51 = !{ void ()* @"FallbackMaterial", !"FallbackMaterial", null, null, !50 }
!52 = !{ i32 1, i32 9, i32 3, i32 64 }
!53 = !{ !52 }
!54 = !{ i32 1, i32 1, i32 1 }
!55 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !27, i32 16, i32 -1, i32 20, !53, i32 4, !54 }
!56 = !{ void ()* @"SkyTiles", !"SkyTiles", null, null, !55 }
!57 = !{ !"DebugOverlay", i32 1 }
!58 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !57, i32 16, i32 -1, i32 20, !53, i32 4, !54 }
!59 = !{ void ()* @"DebugCountTiles", !"DebugCountTiles", null, null, !58 }
!60 = !{ void ()* @"ClassifyTiles", !"ClassifyTiles" }
!61 = !{ void ()* @"MaterialOpaque", !"MaterialOpaque" }
!62 = !{ void ()* @"MaterialMetal", !"MaterialMetal" }
!63 = !{ void ()* @"MaterialFoliage", !"MaterialFoliage" }
!64 = !{ void ()* @"MaterialEmissive", !"MaterialEmissive" }
!65 = !{ void ()* @"FallbackMaterial", !"FallbackMaterial" }
!66 = !{ void ()* @"SkyTiles", !"SkyTiles" }
!67 = !{ void ()* @"DebugCountTiles", !"DebugOverlay" }
!68 = !{ !"NodeMaxLoopIterations", i32 131072 }
!69 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!70 = !{ !"wgc 0.1.0" }
