; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint4>" = type opaque
%"class.RWByteAddressBuffer" = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%"TerrainConstants" = type opaque
declare void @"CullRoots"()

declare void @"TraverseTile"()

declare void @"EmitLeaf"()

declare void @"LeafStatistics"()

@"VisibleTiles" = external constant %"class.RWStructuredBuffer<uint4>"
@"VisibleCount" = external constant %"class.RWByteAddressBuffer"
@"LevelHistogram" = external constant %"class.RWStructuredBuffer<uint>"
@"TerrainConstants" = external constant %"TerrainConstants"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !10 }
!dx.entryPoints = !{ !11, !20, !29, !34, !37 }
!wgc.spirv.entryPoints = !{ !38, !39, !40, !41 }
!wgc.experimental.tags = !{ !42, !43 }
!llvm.ident = !{ !44 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 16 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint4>"* @"VisibleTiles", !"VisibleTiles", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ i32 1, %"class.RWByteAddressBuffer"* @"VisibleCount", !"VisibleCount", i32 0, i32 2, i32 1, i32 11, i1 false, i1 false, i1 false, null }
!5 = !{ i32 1, i32 4 }
!6 = !{ i32 2, %"class.RWStructuredBuffer<uint>"* @"LevelHistogram", !"LevelHistogram", i32 0, i32 3, i32 1, i32 12, i1 false, i1 false, i1 false, !5 }
!7 = !{ !3, !4, !6 }
!8 = !{ i32 0, %"TerrainConstants"* @"TerrainConstants", !"TerrainConstants", i32 0, i32 0, i32 1, i32 128, null }
!9 = !{ !8 }
!10 = !{ null, !7, !9, null }
!11 = !{ null, !"", null, !10, null }
!12 = !{ !"CullRoots", i32 0 }
!13 = !{ i32 1, i32 1, i32 1 }
!14 = !{ i32 0, i32 12, i32 2, i32 4 }
!15 = !{ !"TraverseTile", i32 0 }
!16 = !{ i32 1, i32 6, i32 2, !14, i32 3, i32 16, i32 0, !15 }
!17 = !{ !16 }
!18 = !{ i32 4, i32 4, i32 1 }
!19 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !12, i32 16, i32 -1, i32 18, !13, i32 21, !17, i32 4, !18 }
!20 = !{ void ()* @"CullRoots", !"CullRoots", null, null, !19 }
!21 = !{ i32 1, i32 33, i32 2, !14 }
!22 = !{ !21 }
!23 = !{ i32 1, i32 6, i32 2, !14, i32 3, i32 4, i32 0, !15 }
!24 = !{ i32 0, i32 16, i32 2, i32 4 }
!25 = !{ !"EmitLeaf", i32 0 }
!26 = !{ i32 1, i32 6, i32 2, !24, i32 3, i32 1, i32 0, !25 }
!27 = !{ !23, !26 }
!28 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !15, i32 16, i32 -1, i32 19, i32 8, i32 20, !22, i32 21, !27, i32 4, !13 }
!29 = !{ void ()* @"TraverseTile", !"TraverseTile", null, null, !28 }
!30 = !{ i32 1, i32 65, i32 2, !24, i32 3, i32 32 }
!31 = !{ !30 }
!32 = !{ i32 32, i32 1, i32 1 }
!33 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !25, i32 16, i32 -1, i32 20, !31, i32 4, !32 }
!34 = !{ void ()* @"EmitLeaf", !"EmitLeaf", null, null, !33 }
!35 = !{ !"LeafStatistics", i32 0 }
!36 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !35, i32 16, i32 -1, i32 17, !25, i32 20, !31, i32 4, !32 }
!37 = !{ void ()* @"LeafStatistics", !"LeafStatistics", null, null, !36 }
!38 = !{ void ()* @"CullRoots", !"CullRoots" }
!39 = !{ void ()* @"TraverseTile", !"TraverseTile" }
!40 = !{ void ()* @"EmitLeaf", !"EmitLeaf" }
!41 = !{ void ()* @"LeafStatistics", !"LeafStatistics" }
!42 = !{ !"NodeMaxLoopIterations", i32 131072 }
!43 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!44 = !{ !"wgc 0.1.0" }
