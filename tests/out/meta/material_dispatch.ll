; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.Texture2D<uint>" = type opaque
%"class.Texture2D<float4>" = type opaque
%"class.RWTexture2D<float4>" = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%FrameConstants = type opaque

@MaterialIds = external constant %"class.Texture2D<uint>"
@GBufferA = external constant %"class.Texture2D<float4>"
@GBufferB = external constant %"class.Texture2D<float4>"
@SceneColor = external constant %"class.RWTexture2D<float4>"
@Stats = external constant %"class.RWStructuredBuffer<uint>"
@FrameConstants = external constant %FrameConstants

declare void @ClassifyTiles()

declare void @DebugCountTiles()

declare void @FallbackMaterial()

declare void @MaterialEmissive()

declare void @MaterialFoliage()

declare void @MaterialMetal()

declare void @MaterialOpaque()

declare void @SkyTiles()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!16, !17, !37, !43, !48, !51, !54, !57, !60}
!wgc.spirv.entryPoints = !{!62, !63, !64, !65, !66, !67, !68, !69}
!wgc.experimental.tags = !{!70, !71}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !10, !14, null}
!4 = !{!5, !7, !9}
!5 = !{i32 0, %"class.Texture2D<uint>"* @MaterialIds, !"MaterialIds", i32 0, i32 0, i32 1, i32 2, i32 0, !6}
!6 = !{i32 0, i32 5}
!7 = !{i32 1, %"class.Texture2D<float4>"* @GBufferA, !"GBufferA", i32 0, i32 1, i32 1, i32 2, i32 0, !8}
!8 = !{i32 0, i32 9}
!9 = !{i32 2, %"class.Texture2D<float4>"* @GBufferB, !"GBufferB", i32 0, i32 2, i32 1, i32 2, i32 0, !8}
!10 = !{!11, !12}
!11 = !{i32 0, %"class.RWTexture2D<float4>"* @SceneColor, !"SceneColor", i32 0, i32 3, i32 1, i32 2, i1 false, i1 false, i1 false, !8}
!12 = !{i32 1, %"class.RWStructuredBuffer<uint>"* @Stats, !"Stats", i32 0, i32 4, i32 1, i32 12, i1 false, i1 false, i1 false, !13}
!13 = !{i32 1, i32 4}
!14 = !{!15}
!15 = !{i32 0, %FrameConstants* @FrameConstants, !"FrameConstants", i32 0, i32 5, i32 1, i32 48, null}
!16 = !{null, !"", null, !3, null}
!17 = !{void ()* @ClassifyTiles, !"ClassifyTiles", null, null, !18}
!18 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !19, i32 16, i32 -1, i32 22, !20, i32 20, !21, i32 21, !25, i32 4, !35, i32 5, !36}
!19 = !{!"ClassifyTiles", i32 0}
!20 = !{i32 480, i32 270, i32 1}
!21 = !{!22}
!22 = !{i32 1, i32 97, i32 2, !23}
!23 = !{i32 0, i32 8, i32 1, !24, i32 2, i32 4}
!24 = !{i32 0, i32 5, i32 2}
!25 = !{!26, !29, !31, !33}
!26 = !{i32 1, i32 22, i32 2, !27, i32 3, i32 32, i32 5, i32 32, i32 6, i1 true, i32 0, !28, i32 7, i32 1}
!27 = !{i32 0, i32 12, i32 2, i32 4}
!28 = !{!"Material", i32 0}
!29 = !{i32 1, i32 6, i32 2, !27, i32 3, i32 0, i32 4, i32 0, i32 0, !30}
!30 = !{!"FallbackMaterial", i32 0}
!31 = !{i32 1, i32 10, i32 3, i32 1, i32 0, !32}
!32 = !{!"SkyTiles", i32 0}
!33 = !{i32 1, i32 26, i32 3, i32 1, i32 5, i32 -1, i32 6, i1 true, i32 0, !34, i32 7, i32 1}
!34 = !{!"DebugOverlay", i32 0}
!35 = !{i32 8, i32 8, i32 1}
!36 = !{i32 0}
!37 = !{void ()* @DebugCountTiles, !"DebugCountTiles", null, null, !38}
!38 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !39, i32 16, i32 -1, i32 20, !40, i32 4, !42, i32 5, !36}
!39 = !{!"DebugOverlay", i32 1}
!40 = !{!41}
!41 = !{i32 1, i32 9, i32 3, i32 64}
!42 = !{i32 1, i32 1, i32 1}
!43 = !{void ()* @FallbackMaterial, !"FallbackMaterial", null, null, !44}
!44 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !30, i32 16, i32 -1, i32 20, !45, i32 4, !47, i32 5, !36}
!45 = !{!46}
!46 = !{i32 1, i32 65, i32 2, !27, i32 3, i32 4}
!47 = !{i32 64, i32 1, i32 1}
!48 = !{void ()* @MaterialEmissive, !"MaterialEmissive", null, null, !49}
!49 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !50, i32 16, i32 -1, i32 20, !45, i32 4, !47, i32 5, !36}
!50 = !{!"Material", i32 4}
!51 = !{void ()* @MaterialFoliage, !"MaterialFoliage", null, null, !52}
!52 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !53, i32 16, i32 -1, i32 20, !45, i32 4, !47, i32 5, !36}
!53 = !{!"Material", i32 3}
!54 = !{void ()* @MaterialMetal, !"MaterialMetal", null, null, !55}
!55 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !56, i32 16, i32 -1, i32 20, !45, i32 4, !47, i32 5, !36}
!56 = !{!"Material", i32 2}
!57 = !{void ()* @MaterialOpaque, !"MaterialOpaque", null, null, !58}
!58 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !59, i32 16, i32 -1, i32 20, !45, i32 4, !47, i32 5, !36}
!59 = !{!"Material", i32 1}
!60 = !{void ()* @SkyTiles, !"SkyTiles", null, null, !61}
!61 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !32, i32 16, i32 -1, i32 20, !40, i32 4, !42, i32 5, !36}
!62 = !{void ()* @ClassifyTiles, !"ClassifyTiles"}
!63 = !{void ()* @DebugCountTiles, !"DebugOverlay"}
!64 = !{void ()* @FallbackMaterial, !"FallbackMaterial"}
!65 = !{void ()* @MaterialEmissive, !"MaterialEmissive"}
!66 = !{void ()* @MaterialFoliage, !"MaterialFoliage"}
!67 = !{void ()* @MaterialMetal, !"MaterialMetal"}
!68 = !{void ()* @MaterialOpaque, !"MaterialOpaque"}
!69 = !{void ()* @SkyTiles, !"SkyTiles"}
!70 = !{!"NodeMaxLoopIterations", i32 131072}
!71 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
